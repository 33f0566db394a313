"""Run by pvbatch (ParaView's batch Python) from test_hdf5_output.py: opens
an .xdmf with ParaView's own XDMF reader (Xdmf3ReaderS) and prints, after the
marker "JSON", every time step's points, cells, coordinates and point and cell
arrays as JSON (floats as repr: exact)."""
import json
import sys

from paraview import servermanager
from paraview.simple import Xdmf3ReaderS
from paraview.vtk.numpy_interface import dataset_adapter as dsa

reader = Xdmf3ReaderS(FileName=[sys.argv[1]])
times = reader.TimestepValues  # a float where the series has one step
out = {"times": list(times) if hasattr(times, "__len__") else [times], "steps": []}
for time in out["times"] or [0.0]:
    reader.UpdatePipeline(time)
    data = servermanager.Fetch(reader)
    if data.IsA("vtkMultiBlockDataSet"):
        data = data.GetBlock(0)
    wrapped = dsa.WrapDataObject(data)
    out["steps"].append({
        "points": data.GetNumberOfPoints(), "cells": data.GetNumberOfCells(),
        "cell_types": [data.GetCellType(c) for c in range(data.GetNumberOfCells())],
        "coordinates": wrapped.Points.tolist(),
        "point_data": {n: wrapped.PointData[n].tolist() for n in wrapped.PointData.keys()},
        "cell_data": {n: wrapped.CellData[n].tolist() for n in wrapped.CellData.keys()}})
print("JSON" + json.dumps(out))
